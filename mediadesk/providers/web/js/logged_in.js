// A snapshot of the login state: the logged_in marker is there and no logged_out marker shows.
  return !!document.querySelector(cfg.loggedIn) && !(cfg.loggedOut && anyVisible(cfg.loggedOut));
