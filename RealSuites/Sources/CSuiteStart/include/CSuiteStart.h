// Nothing to import: the target exists for the constructor in start.c.
