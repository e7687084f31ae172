"""The main window's frame: the window itself (main_window), the panes it builds (panes), its
actions and toolbar (actions), the table actions (task_actions), batch submission (submission),
the status bar and notices (status_line), a workspace switch (rebind), filter bar, row and header
menus (table_menu), tray, saved layout (window_state) and the small-screen rules."""
