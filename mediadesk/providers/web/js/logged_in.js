// A snapshot of the login state: the logged_in marker is there and no logged_out marker shows.
  return isLoggedIn();
