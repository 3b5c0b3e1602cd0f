"""Pi's themes: loading, colours, the app's theme service and live reload."""
