"""The main window's frame: the window itself (main_window), which owns the widgets and builds its
parts: the panes (panes), actions and toolbar (actions), the table actions (task_actions), batch
submission (submission), the status bar and message boxes (status_line), the grouped view
(grouped_view), the filter bar, row and header menus (table_menu), the menu bar (menus), notices
(attention), the saved layout (window_state) and the small-screen rules; and the tray (tray)."""
