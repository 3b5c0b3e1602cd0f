"""pi's full-screen Textual app. Imported only when the interactive mode starts."""
