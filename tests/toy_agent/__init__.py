"""A fourth agent that exists only in the tests: one folder, registered by the test that
uses it, proving that adding an agent touches no file of lazy's own."""
