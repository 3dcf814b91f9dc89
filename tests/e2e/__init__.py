"""Whole-product tests: the launcher, the web page in a real browser, the chat eval."""
