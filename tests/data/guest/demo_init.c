/* A guest for the unit tests: only its list beside it is read. */
