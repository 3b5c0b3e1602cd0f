"""The session kernel: ``AgentSession``, its parts and its events.

Nothing is imported here eagerly: a front end may load the event classes
(``pi_runtime.kernel.events``) before the kernel itself, to keep start-up fast.
"""
