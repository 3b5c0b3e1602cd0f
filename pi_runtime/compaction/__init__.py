"""Compaction (summarise old history to free context) and branch summaries, as Pi does them.

Entry points: ``estimate.should_compact`` / ``estimate_context_tokens`` decide when,
``compaction.run_compaction`` summarises and appends the entry, ``branch_summary.summarize_branch``
summarises an abandoned branch. Settings are read from ``compaction.settings``.
"""
