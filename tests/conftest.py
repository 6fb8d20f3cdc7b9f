"""Shared test fixtures: where the third-party data in ../shared lives."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("YGOREPLAY_SHARED", ROOT.parent / "shared"))
CHROMIUM = os.environ.get("YGOREPLAY_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(autouse=True, scope="session")
def _own_data_folder(tmp_path_factory):
    """Every test runs with a ygoreplay folder (default store, organiser key) and a home of its
    own session, never the user's: XDG_DATA_HOME and HOME point into the test's temporary folder
    (so no EDOPro install of the user's lends its card names), no $YGOREPLAY_* setting leaks in,
    and no command a test runs starts a resident helper (``YGOREPLAY_RESIDENT=off``: a test that
    wants one starts it, in a folder of its own)."""
    folder = tmp_path_factory.mktemp("xdg-data")
    home = tmp_path_factory.mktemp("home")
    names = ("XDG_DATA_HOME", "HOME", "YGOREPLAY_KEY", "YGOREPLAY_STORE", "YGOREPLAY_CARDS", "YGOREPLAY_RESIDENT")
    previous = {name: os.environ.get(name) for name in names}
    os.environ["XDG_DATA_HOME"] = str(folder)
    os.environ["HOME"] = str(home)
    os.environ["YGOREPLAY_RESIDENT"] = "off"
    for name in ("YGOREPLAY_KEY", "YGOREPLAY_STORE", "YGOREPLAY_CARDS"):
        os.environ.pop(name, None)
    yield folder
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True, scope="session")
def _one_tls_context_for_httpx():
    """Every ``httpx.get``/``post`` a test makes (hundreds: a service's ``/health`` polled until it
    is up, each request of the service tests) builds a client, and each client built a TLS context
    of its own, loading certifi's bundle: 55 ms of CPU a request, for services on plain
    ``http://127.0.0.1`` that never use it. The worker's clients share the one default context
    (the same settings httpx makes; a client given its own ``verify`` still gets what it asks)."""
    from httpx._transports import default

    made = default.create_ssl_context
    shared: dict[tuple, object] = {}

    def create_ssl_context(verify=True, cert=None, trust_env=True):
        if verify is not True or cert is not None:
            return made(verify=verify, cert=cert, trust_env=trust_env)
        key = (trust_env, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
        if key not in shared:
            shared[key] = made(verify=verify, cert=cert, trust_env=trust_env)
        return shared[key]

    default.create_ssl_context = create_ssl_context
    yield
    default.create_ssl_context = made


@pytest.fixture(autouse=True)
def _ctrl_c_as_found():
    """Every test leaves the worker's SIGINT handler as it found it: ``serve`` run in-process
    (CliRunner, test_receipts) installs Python's (``cli/service._interruptible``), and the
    commands the worker's later tests started then had Ctrl-C or not by which tests that worker
    happened to run before them (a run started in the background ignores it)."""
    found = signal.getsignal(signal.SIGINT)
    yield
    if found is not None and signal.getsignal(signal.SIGINT) is not found:
        signal.signal(signal.SIGINT, found)


@pytest.fixture(scope="session")
def chromium_endpoint():
    """The DevTools address of the worker's one chromium (``chromium_host.py``), started when a
    browser file first asks: each browser file launched its own (23 files; a second of wall and
    half a second of CPU each). A file still has its own Playwright and its own contexts."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: install Debian's chromium (apt-get install chromium; .ci/run does)")
    host = subprocess.Popen([sys.executable, str(Path(__file__).with_name("chromium_host.py")), CHROMIUM,
                             "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    endpoint = host.stdout.readline().strip()
    if not endpoint:
        host.kill()
        pytest.fail(f"chromium did not start (tests/chromium_host.py exited {host.wait()})")
    yield endpoint
    host.stdin.close()
    try:
        host.wait(30)
    except subprocess.TimeoutExpired:
        host.kill()
        host.wait()


def shared_path(*parts: str) -> Path:
    """A path under ../shared, skipping the calling test when it is absent (third-party data)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"third-party data not available: {path}")
    return path
