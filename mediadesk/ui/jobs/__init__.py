"""Work off the GUI thread: database reads, exports, batch parsing, and the feed that keeps the task model live."""
