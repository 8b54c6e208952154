"""TLS for the fake Gemini Live server: the SDK always turns the base URL into `wss://`, so a throwaway CA from
`trustme` signs a certificate for 127.0.0.1, and the client trusts it through the `ssl.SSLContext` handed out
here (`HttpOptions(async_client_args={"ssl": context})`)."""

from __future__ import annotations

import ssl
from dataclasses import dataclass

import pytest
import trustme


@dataclass(frozen=True, slots=True)
class LiveTLS:
    """A throwaway CA's server and client sides."""

    server_context: ssl.SSLContext
    client_context: ssl.SSLContext
    """What the client needs: trusts the CA (and nothing else)."""
    ca_pem: bytes
    """The CA certificate, for what is configured with a CA file (`PARLEY_CA_FILE`)."""


def make_live_tls() -> LiveTLS:
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_context)
    client_context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cadata=ca.cert_pem.bytes().decode())
    return LiveTLS(server_context, client_context, ca.cert_pem.bytes())


@pytest.fixture(scope="session")
def live_tls() -> LiveTLS:
    """One throwaway CA per test run."""
    return make_live_tls()


@pytest.fixture
def gemini_live_ssl_context(live_tls: LiveTLS) -> ssl.SSLContext:
    """The context the client needs to trust the fake server."""
    return live_tls.client_context
