"""Extensions shipped with pi, off until named: ``builtin:permission-gate``, ``builtin:git-checkpoint``,
``builtin:plan-mode``, ``builtin:subagent`` (``-e builtin:<name>`` or the ``extensions`` setting)."""
