"""Process and file-system utilities: durable writes, locks, pid files, private modes."""
