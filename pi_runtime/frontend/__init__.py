"""The public face of the runtime: everything a front end (the app, a script, an SDK user) needs.

- :class:`SessionPort`, the session interface, and the closed union of its events
  (:mod:`pi_runtime.frontend.events`, light enough to import before the kernel);
- typed results of the session's commands and the errors they raise;
- building a session (``create_agent_session``, the CLI's ``build_session``), the session
  listing a picker needs, settings, credentials and local model servers;
- the scripted provider for demos, screenshots and tests.

Names are loaded on first use, so importing this package costs nothing at start-up: the app
paints its first frame before the kernel is imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_SOURCES: dict[str, tuple[str, ...]] = {
    "pi_runtime": ("__version__",),
    "pi_runtime.paths": ("agent_dir",),
    "pi_runtime.config_files": ("ConfigFileError", "read_config_text"),
    "pi_runtime.cli_args": ("CliArgs", "UsageError"),
    "pi_runtime.frontend.session": ("SessionPort",),
    "pi_runtime.kernel.session": ("AgentSession", "typed_settings"),
    "pi_runtime.kernel.errors": ("PromptError", "CompactionError", "SessionBusyError"),
    "pi_runtime.kernel.message_queue": ("QueuedMessage", "QueueEditError"),
    "pi_runtime.kernel.results": (
        "BashResult", "CompactionResult", "ContextUsage", "CycleModelResult", "ForkResult", "NavigateResult",
        "SessionStats", "SwitchResult", "UsageTotals",
    ),
    "pi_runtime.sdk": ("create_agent_session",),
    "pi_runtime.sibling": ("Sibling", "open_sibling_session"),
    "pi_runtime.modes.startup": ("build_session", "save_trust_decision", "session_dir_for", "trust_question"),
    "pi_runtime.modes.inputs": ("initial_prompts",),
    "pi_runtime.modes.resume_folder": (
        "ResumeFolder", "build_resumed_session", "fork_into", "missing_folder_choices", "where_to_resume",
    ),
    "pi_runtime.ai.types": ("ImageContent", "Model", "Usage"),
    "pi_runtime.ai.models": ("ModelRegistry",),
    "pi_runtime.ai.env_keys": ("ENV_KEYS", "env_var_names"),
    "pi_runtime.auth": ("AuthStorage",),
    "pi_runtime.ai.abort": ("AbortController",),
    "pi_runtime.ai.oauth": ("OAuthError", "OAuthLoginCancelled", "OAuthSelectOption"),
    "pi_runtime.local_servers": ("add_to_models_json", "probe_local_servers"),
    "pi_runtime.mcp.manager": ("mcp_manager_for",),
    "pi_runtime.mcp.accounts": ("find_oauth_server", "sign_out_and_reconnect"),
    "pi_runtime.mcp.oauth": ("McpSignInError", "oauth_applies"),
    "pi_runtime.mcp.oauth_login": ("mcp_sign_in",),
    "pi_runtime.mcp.oauth_store": ("McpAuthFileError", "McpAuthStore"),
    "pi_runtime.session": ("SessionManager",),
    "pi_runtime.session.listing": ("newest_session_in", "read_session_info"),
    "pi_runtime.session.paths": ("project_session_dir",),
    "pi_runtime.session.storage": ("SessionFileError",),
    "pi_runtime.session.tail": ("read_branch_tail",),
    "pi_runtime.session.entries": ("parse_messages",),
    "pi_runtime.settings": ("SettingsManager", "read_json_object"),
    "pi_runtime.tools.read": ("detect_image_mime",),
    "pi_runtime.extensions.ui": ("status_line",),
    "pi_runtime.ai.providers.scripted": (
        "ScriptedProvider", "ScriptedResponse", "ScriptedText", "ScriptedThinking", "ScriptedToolCall",
        "scripted_text", "scripted_tool_call",
    ),
}
_WHERE = {name: module for module, names in _SOURCES.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'pi_runtime.frontend' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from pi_runtime import __version__ as __version__
    from pi_runtime.ai.abort import AbortController as AbortController
    from pi_runtime.ai.env_keys import ENV_KEYS as ENV_KEYS
    from pi_runtime.ai.env_keys import env_var_names as env_var_names
    from pi_runtime.ai.models import ModelRegistry as ModelRegistry
    from pi_runtime.ai.oauth import OAuthError as OAuthError
    from pi_runtime.ai.oauth import OAuthLoginCancelled as OAuthLoginCancelled
    from pi_runtime.ai.oauth import OAuthSelectOption as OAuthSelectOption
    from pi_runtime.ai.providers.scripted import (
        ScriptedProvider as ScriptedProvider,
    )
    from pi_runtime.ai.providers.scripted import (
        ScriptedResponse as ScriptedResponse,
    )
    from pi_runtime.ai.providers.scripted import (
        ScriptedText as ScriptedText,
    )
    from pi_runtime.ai.providers.scripted import (
        ScriptedThinking as ScriptedThinking,
    )
    from pi_runtime.ai.providers.scripted import (
        ScriptedToolCall as ScriptedToolCall,
    )
    from pi_runtime.ai.providers.scripted import (
        scripted_text as scripted_text,
    )
    from pi_runtime.ai.providers.scripted import (
        scripted_tool_call as scripted_tool_call,
    )
    from pi_runtime.ai.types import ImageContent as ImageContent
    from pi_runtime.ai.types import Model as Model
    from pi_runtime.ai.types import Usage as Usage
    from pi_runtime.auth import AuthStorage as AuthStorage
    from pi_runtime.config_files import ConfigFileError as ConfigFileError
    from pi_runtime.config_files import read_config_text as read_config_text
    from pi_runtime.extensions.ui import status_line as status_line
    from pi_runtime.frontend.session import SessionPort as SessionPort
    from pi_runtime.kernel.errors import (
        CompactionError as CompactionError,
    )
    from pi_runtime.kernel.errors import (
        PromptError as PromptError,
    )
    from pi_runtime.kernel.errors import (
        SessionBusyError as SessionBusyError,
    )
    from pi_runtime.kernel.message_queue import QueuedMessage as QueuedMessage
    from pi_runtime.kernel.message_queue import QueueEditError as QueueEditError
    from pi_runtime.kernel.results import (
        BashResult as BashResult,
    )
    from pi_runtime.kernel.results import (
        CompactionResult as CompactionResult,
    )
    from pi_runtime.kernel.results import (
        ContextUsage as ContextUsage,
    )
    from pi_runtime.kernel.results import (
        CycleModelResult as CycleModelResult,
    )
    from pi_runtime.kernel.results import (
        ForkResult as ForkResult,
    )
    from pi_runtime.kernel.results import (
        NavigateResult as NavigateResult,
    )
    from pi_runtime.kernel.results import (
        SessionStats as SessionStats,
    )
    from pi_runtime.kernel.results import (
        SwitchResult as SwitchResult,
    )
    from pi_runtime.kernel.results import (
        UsageTotals as UsageTotals,
    )
    from pi_runtime.kernel.session import AgentSession as AgentSession
    from pi_runtime.kernel.session import typed_settings as typed_settings
    from pi_runtime.local_servers import (
        add_to_models_json as add_to_models_json,
    )
    from pi_runtime.local_servers import (
        probe_local_servers as probe_local_servers,
    )
    from pi_runtime.mcp.accounts import find_oauth_server as find_oauth_server
    from pi_runtime.mcp.accounts import sign_out_and_reconnect as sign_out_and_reconnect
    from pi_runtime.mcp.manager import mcp_manager_for as mcp_manager_for
    from pi_runtime.mcp.oauth import McpSignInError as McpSignInError
    from pi_runtime.mcp.oauth import oauth_applies as oauth_applies
    from pi_runtime.mcp.oauth_login import mcp_sign_in as mcp_sign_in
    from pi_runtime.mcp.oauth_store import McpAuthFileError as McpAuthFileError
    from pi_runtime.mcp.oauth_store import McpAuthStore as McpAuthStore
    from pi_runtime.modes.inputs import initial_prompts as initial_prompts
    from pi_runtime.modes.resume_folder import ResumeFolder as ResumeFolder
    from pi_runtime.modes.resume_folder import build_resumed_session as build_resumed_session
    from pi_runtime.modes.resume_folder import fork_into as fork_into
    from pi_runtime.modes.resume_folder import missing_folder_choices as missing_folder_choices
    from pi_runtime.modes.resume_folder import where_to_resume as where_to_resume
    from pi_runtime.modes.startup import build_session as build_session
    from pi_runtime.modes.startup import save_trust_decision as save_trust_decision
    from pi_runtime.modes.startup import session_dir_for as session_dir_for
    from pi_runtime.modes.startup import trust_question as trust_question
    from pi_runtime.paths import agent_dir as agent_dir
    from pi_runtime.sdk import create_agent_session as create_agent_session
    from pi_runtime.session import SessionManager as SessionManager
    from pi_runtime.session.entries import parse_messages as parse_messages
    from pi_runtime.session.listing import (
        newest_session_in as newest_session_in,
    )
    from pi_runtime.session.listing import (
        read_session_info as read_session_info,
    )
    from pi_runtime.session.paths import project_session_dir as project_session_dir
    from pi_runtime.session.storage import SessionFileError as SessionFileError
    from pi_runtime.session.tail import read_branch_tail as read_branch_tail
    from pi_runtime.settings import SettingsManager as SettingsManager
    from pi_runtime.settings import read_json_object as read_json_object
    from pi_runtime.sibling import Sibling as Sibling
    from pi_runtime.sibling import open_sibling_session as open_sibling_session
    from pi_runtime.tools.read import detect_image_mime as detect_image_mime
