"""Helpers only pi's own app uses: not a stable API (names here change with the app).

The app may import nothing of the runtime but :mod:`pi_runtime.frontend` and its submodules;
what it needs beyond the public face lives here, so the face stays what a front end, an SDK
user or an extension's host is told to use:

- the command line's path to a session (``build_session`` and its ``UsageError``, the project
  trust question, the session folder, the prompts given as arguments);
- what the app shows before the kernel is loaded (the newest session's tail, config files);
- its flows for local model servers (the llama.cpp router's ``/llama`` and ``/login`` too), provider
  sign-in (account or API key), images pasted into the
  editor, MCP sign-in and sign-out, and where ``/mcp`` saves a server's switches;
- what ``pi config`` lists and writes (``ResourceConfig``);
- the llama.cpp router stand-in the ``/llama`` screenshots are drawn against.

Names are loaded on first use, like the face's; the imports below are the one list of names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import LazyExports

if TYPE_CHECKING:
    from pi_runtime.ai.env_keys import ENV_KEYS as ENV_KEYS
    from pi_runtime.ai.env_keys import env_var_names as env_var_names
    from pi_runtime.ai.env_keys import suggested_env_var as suggested_env_var
    from pi_runtime.ai.stream import prepare_requests as prepare_requests
    from pi_runtime.auth_methods import LoginOption as LoginOption
    from pi_runtime.auth_methods import device_id_getter as device_id_getter
    from pi_runtime.auth_methods import login_options as login_options
    from pi_runtime.auth_methods import matching_options as matching_options
    from pi_runtime.auth_methods import open_in_browser as open_in_browser
    from pi_runtime.cli_args import CliArgs as CliArgs
    from pi_runtime.cli_args import UsageError as UsageError
    from pi_runtime.collector_pause import collector_paused as collector_paused
    from pi_runtime.config_files import ConfigFileError as ConfigFileError
    from pi_runtime.config_files import ConfigJsonError as ConfigJsonError
    from pi_runtime.config_files import parse_config_json as parse_config_json
    from pi_runtime.config_files import read_config_text as read_config_text
    from pi_runtime.config_files import read_json_object as read_json_object
    from pi_runtime.llama.catalog import context_window as context_window
    from pi_runtime.llama.client import LlamaClient as LlamaClient
    from pi_runtime.llama.client import LlamaError as LlamaError
    from pi_runtime.llama.client import RouterModel as RouterModel
    from pi_runtime.llama.client import is_loaded as is_loaded
    from pi_runtime.llama.client import state_of as state_of
    from pi_runtime.llama.extension import llama_client_for as llama_client_for
    from pi_runtime.llama.extension import llama_login as llama_login
    from pi_runtime.local_servers import add_to_models_json as add_to_models_json
    from pi_runtime.local_servers import probe_local_servers as probe_local_servers
    from pi_runtime.mcp.accounts import find_oauth_server as find_oauth_server
    from pi_runtime.mcp.accounts import sign_out_and_reconnect as sign_out_and_reconnect
    from pi_runtime.mcp.config import McpConfigError as McpConfigError
    from pi_runtime.mcp.config_edit import saved_where as saved_where
    from pi_runtime.mcp.oauth import McpSignInError as McpSignInError
    from pi_runtime.mcp.oauth_login import mcp_sign_in as mcp_sign_in
    from pi_runtime.mcp.oauth_store import McpAuthFileError as McpAuthFileError
    from pi_runtime.mcp.radius_server import add_radius_server as add_radius_server
    from pi_runtime.mcp.radius_server import plan_radius_server as plan_radius_server
    from pi_runtime.modes.inputs import initial_prompts as initial_prompts
    from pi_runtime.modes.resume_folder import build_resumed_session as build_resumed_session
    from pi_runtime.modes.resume_folder import fork_into as fork_into
    from pi_runtime.modes.resume_folder import missing_folder_choices as missing_folder_choices
    from pi_runtime.modes.resume_folder import where_to_resume as where_to_resume
    from pi_runtime.modes.session_notices import startup_problems as startup_problems
    from pi_runtime.modes.session_notices import unsaved_report as unsaved_report
    from pi_runtime.modes.startup import SessionFolderGone as SessionFolderGone
    from pi_runtime.modes.startup import build_session as build_session
    from pi_runtime.modes.startup import save_trust_decision as save_trust_decision
    from pi_runtime.modes.startup import session_dir_for as session_dir_for
    from pi_runtime.modes.startup import trust_question as trust_question
    from pi_runtime.packages.resource_config import ConfigError as ConfigError
    from pi_runtime.packages.resource_config import ConfigItem as ConfigItem
    from pi_runtime.packages.resource_config import ResourceConfig as ResourceConfig
    from pi_runtime.packages.resource_config import WriteScope as WriteScope
    from pi_runtime.resources.overrides import theme_filter as theme_filter
    from pi_runtime.resources.trust import TrustStore as TrustStore
    from pi_runtime.resources.trust import TrustStoreError as TrustStoreError
    from pi_runtime.resources.trust import settled_project_trust as settled_project_trust
    from pi_runtime.session.entries import parse_messages as parse_messages
    from pi_runtime.session.listing import newest_session_in as newest_session_in
    from pi_runtime.session.removal import held_for_removal as held_for_removal
    from pi_runtime.session.storage import SessionLockedError as SessionLockedError
    from pi_runtime.session.tail import read_branch_tail as read_branch_tail
    from pi_runtime.testing.llama_router import LlamaRouterStandIn as LlamaRouterStandIn
    from pi_runtime.testing.llama_router import sample_models as sample_models
    from pi_runtime.tools.read import detect_image_mime as detect_image_mime
    from pi_runtime.walk_guard import WalkGuard as WalkGuard

else:  # hidden from mypy, so a name not listed above is an error there rather than Any
    __getattr__, __dir__ = LazyExports(__name__).hooks()
