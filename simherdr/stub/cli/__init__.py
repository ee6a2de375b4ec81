"""The stand-in CLI as a table (placeholder: 9a's table package replaces this file)."""
