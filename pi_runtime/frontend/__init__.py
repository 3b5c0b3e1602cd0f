"""The public face of the runtime: what a front end, an SDK user or an extension's host needs.

- :class:`SessionPort`, the session interface, and the closed union of its events
  (:mod:`pi_runtime.frontend.events`, light enough to import before the kernel), with their JSON
  shape both ways (``event_to_wire``, ``EventDecoder``) for a front end in another process;
- typed results of the session's commands and the errors they raise, the queue's messages;
- building a session (``create_agent_session``) and a sibling beside it, the session files
  (``SessionManager``, ``read_session_info``, ``project_session_dir``), settings, models and
  credentials (with provider sign-in), the session's MCP servers (``mcp_manager_for``);
- a client of ``pi serve`` (``ServeClient``, ``NoServer``) and its sessions (``RemoteSession``,
  a ``SessionPort``), kept attached (``keep_attached``), with the errors of the connection;
- the scripted provider for demos, screenshots and tests.

The app's own helpers (its command line, trust question, previews, local-server and MCP sign-in
flows) are in :mod:`pi_runtime.frontend.app_support`, which is not a stable API.

Names are loaded on first use, so importing this package costs nothing at start-up: the app
paints its first frame before the kernel is imported. The imports below are the one list of
names (see ``_lazy.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import LazyExports

if TYPE_CHECKING:
    from pi_runtime import __version__ as __version__
    from pi_runtime.ai.abort import AbortController as AbortController
    from pi_runtime.ai.models import ModelRegistry as ModelRegistry
    from pi_runtime.ai.oauth import OAuthError as OAuthError
    from pi_runtime.ai.oauth import OAuthLoginCancelled as OAuthLoginCancelled
    from pi_runtime.ai.oauth import OAuthSelectOption as OAuthSelectOption
    from pi_runtime.ai.providers.scripted import ScriptedProvider as ScriptedProvider
    from pi_runtime.ai.providers.scripted import ScriptedResponse as ScriptedResponse
    from pi_runtime.ai.providers.scripted import ScriptedText as ScriptedText
    from pi_runtime.ai.providers.scripted import ScriptedThinking as ScriptedThinking
    from pi_runtime.ai.providers.scripted import ScriptedToolCall as ScriptedToolCall
    from pi_runtime.ai.providers.scripted import scripted_text as scripted_text
    from pi_runtime.ai.providers.scripted import scripted_tool_call as scripted_tool_call
    from pi_runtime.ai.types import ImageContent as ImageContent
    from pi_runtime.ai.types import Model as Model
    from pi_runtime.ai.types import Usage as Usage
    from pi_runtime.ai.types import is_virtual as is_virtual
    from pi_runtime.ai.virtual import RoutedModel as RoutedModel
    from pi_runtime.auth import AuthStorage as AuthStorage
    from pi_runtime.extensions.fuzzy import fuzzy_filter as fuzzy_filter
    from pi_runtime.frontend.session import SessionPort as SessionPort
    from pi_runtime.frontend.wire import EventDecoder as EventDecoder
    from pi_runtime.frontend.wire import event_to_wire as event_to_wire
    from pi_runtime.kernel.errors import CompactionError as CompactionError
    from pi_runtime.kernel.errors import PromptError as PromptError
    from pi_runtime.kernel.errors import SessionBusyError as SessionBusyError
    from pi_runtime.kernel.message_queue import QueuedMessage as QueuedMessage
    from pi_runtime.kernel.message_queue import QueueEditError as QueueEditError
    from pi_runtime.kernel.results import BashResult as BashResult
    from pi_runtime.kernel.results import CompactionResult as CompactionResult
    from pi_runtime.kernel.results import ContextUsage as ContextUsage
    from pi_runtime.kernel.results import CycleModelResult as CycleModelResult
    from pi_runtime.kernel.results import ForkResult as ForkResult
    from pi_runtime.kernel.results import NavigateResult as NavigateResult
    from pi_runtime.kernel.results import SessionStats as SessionStats
    from pi_runtime.kernel.results import SwitchResult as SwitchResult
    from pi_runtime.kernel.results import UsageTotals as UsageTotals
    from pi_runtime.kernel.session import AgentSession as AgentSession
    from pi_runtime.kernel.session import typed_settings as typed_settings
    from pi_runtime.mcp.manager import mcp_manager_for as mcp_manager_for
    from pi_runtime.paths import agent_dir as agent_dir
    from pi_runtime.remote.attach_choice import AttachChoiceError as AttachChoiceError
    from pi_runtime.remote.attach_choice import match_session as match_session
    from pi_runtime.remote.client import NoServer as NoServer
    from pi_runtime.remote.client import ServeClient as ServeClient
    from pi_runtime.remote.errors import ConnectionLost as ConnectionLost
    from pi_runtime.remote.errors import RemoteError as RemoteError
    from pi_runtime.remote.reconnect import Severity as Severity
    from pi_runtime.remote.reconnect import keep_attached as keep_attached
    from pi_runtime.remote.session import RemoteSession as RemoteSession
    from pi_runtime.sdk import create_agent_session as create_agent_session
    from pi_runtime.session import SessionManager as SessionManager
    from pi_runtime.session.listing import read_session_info as read_session_info
    from pi_runtime.session.paths import project_session_dir as project_session_dir
    from pi_runtime.session.search import SessionMatcher as SessionMatcher
    from pi_runtime.session.search import parse_query as parse_query
    from pi_runtime.session.search import read_session_texts as read_session_texts
    from pi_runtime.session.storage import SessionFileError as SessionFileError
    from pi_runtime.session.transfer import copy_session_file as copy_session_file
    from pi_runtime.settings import SettingsManager as SettingsManager
    from pi_runtime.sibling import Sibling as Sibling
    from pi_runtime.sibling import open_sibling_session as open_sibling_session
    from pi_runtime.text_safety import terminal_safe as terminal_safe
    from pi_runtime.tools.truncate import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
    from pi_runtime.tools.truncate import format_size as format_size

else:  # hidden from mypy, so a name not listed above is an error there rather than Any
    __getattr__, __dir__ = LazyExports(__name__).hooks()
