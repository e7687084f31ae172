"""The main window's frame: the window itself, its actions and toolbar, filter bar, row and header
menus, tray, saved layout and the small-screen rules."""
