"""One module of Click commands per area; each command only parses options and calls the library."""
