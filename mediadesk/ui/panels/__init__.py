"""What the window shows in its docks and tabs: lane panels, detail pane, log, accounts, profiles,
batches, exceptions, desktops, charts."""
