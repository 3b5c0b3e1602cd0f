"""The pieces of ``pi serve --web`` that decide on their own: the flags, the pairing, the QR code."""

from __future__ import annotations

import io

import pytest

from pi_runtime.serve.web.options import WebOptionsError, parse_web_flags
from pi_runtime.serve.web.pairing import Pairing, cookie_value
from pi_runtime.serve.web.site import _show_link


def test_loopback_needs_nothing_and_anything_else_needs_tls(tmp_path):
    assert parse_web_flags({"--web": ""}).origin == "http://127.0.0.1:0"
    assert parse_web_flags({"--web-host": "::1", "--web-port": "8080"}).origin == "http://[::1]:8080"
    assert parse_web_flags({"--web-host": "localhost"}).host == "localhost"
    with pytest.raises(WebOptionsError, match="needs TLS"):
        parse_web_flags({"--web-host": "192.168.1.20"})
    with pytest.raises(WebOptionsError, match="needs TLS"):
        parse_web_flags({"--web-host": "my-laptop.lan"})
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    cert.write_text("x")
    key.write_text("x")
    options = parse_web_flags({"--web-host": "192.168.1.20", "--web-cert": str(cert), "--web-key": str(key)})
    assert options.origin == "https://192.168.1.20:0"
    with pytest.raises(WebOptionsError, match="no such file"):
        parse_web_flags({"--web-host": "192.168.1.20", "--web-cert": str(cert), "--web-key": str(tmp_path / "none")})
    with pytest.raises(WebOptionsError, match="no single address"):
        parse_web_flags({"--web-host": "::", "--web-cert": str(cert), "--web-key": str(key)})
    with pytest.raises(WebOptionsError, match="between 0 and 65535"):
        parse_web_flags({"--web-port": "70000"})


def test_a_token_is_spent_once_and_a_new_one_retires_the_old():
    pairing = Pairing("pi_web_4242")
    first = pairing.new_token()
    second = pairing.new_token()
    assert pairing.redeem(first) is None  # retired by the newer one
    cookie = pairing.redeem(second)
    assert cookie is not None and cookie not in (first, second)
    assert pairing.redeem(second) is None
    assert pairing.redeem("") is None
    assert pairing.admits(f"other=1; pi_web_4242={cookie}")
    assert not pairing.admits(f"pi_web_4243={cookie}")  # another server's (port's) cookie
    assert not pairing.admits("pi_web_4242=" + cookie[:-1])
    assert not pairing.admits(None)
    assert not pairing.admits('pi_web_4242="unterminated')
    assert pairing.set_cookie_header(cookie, secure=False).startswith(f"pi_web_4242={cookie}; ")
    assert pairing.set_cookie_header(cookie, secure=True).endswith("; Secure")


def test_cookie_header_parsing_is_forgiving():
    assert cookie_value("a=b; pi_web_1=xyz", "pi_web_1") == "xyz"
    assert cookie_value("", "pi_web_1") is None
    assert cookie_value("garbage", "pi_web_1") is None


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("terminal", "reachable", "qr"), [(True, True, True), (False, True, False),
                                                            (True, False, False)])
def test_a_qr_code_only_for_a_person_with_a_phone_that_can_reach_the_page(monkeypatch, terminal, reachable, qr):
    out = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    _show_link("https://192.168.1.20:41233/?token=abc", reachable)
    text = out.getvalue()
    assert text.startswith("  https://192.168.1.20:41233/?token=abc\n")
    assert ("█" in text) is qr
