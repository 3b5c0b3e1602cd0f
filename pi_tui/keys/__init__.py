"""Pi's keymap (keybindings.json) and the app's key table."""
