"""The bars around the conversation: the header, the footer and the data a replaced footer reads."""
