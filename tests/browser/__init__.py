"""Browser tests: real flows in Debian's headless Chromium driven by Playwright (sync API)."""
