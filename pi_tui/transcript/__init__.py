"""The conversation pane: the transcript widget, the blocks it shows (messages, tool boxes,
thinking, notices, compaction), their rendering, windowing and search.
"""
