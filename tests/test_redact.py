"""Pages safe to share: ``export`` names the file by its name only (``--full-path`` for
the whole path), warns on stderr naming the lines and entries that hold likely secrets,
and ``--redact`` leaves none of the common shapes in the page (issue 30)."""

from __future__ import annotations

import json
import re

import pytest

import pisession
from pisession.cli import main
from pisession.views import redact
from pisession.views.export import export_html, md_cell

#: One of each common shape, as they turn up in a session: made up, never real.
SECRETS = {
    "API key": "sk-ant-api03-" + "Q7xv2Lm9" * 5,
    "OpenAI project key": "sk-proj-" + "Zp4kW8nR" * 4,
    "AWS access key": "AKIAIOSFODNN7EXAMPLE",
    "AWS secret key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "GitHub token": "ghp_" + "a1B2c3D4e5" * 4,
    "Bearer credential": "eyJhbGciOiJIUzI1NiJ9.payload.signature123",
    "password in a URL": "hunter2secret",
    "private key": "MIIEowIBAAKCAQEAexampleexampleexample",
}


def message(entry_id, parent, role, content, **more):
    body = {"role": role, "content": content, **more}
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T10:00:00.000Z",
        "message": body,
    }


@pytest.fixture
def secret_session(tmp_path):
    """A session whose user message, tool call, tool result and bash output hold secrets."""
    s = SECRETS
    header = {
        "type": "session",
        "version": 3,
        "id": "0199aaaa-0000-7000-8000-00000000beef",
        "timestamp": "2026-01-01T10:00:00.000Z",
        "cwd": str(tmp_path / "work"),
    }
    call = {
        "type": "toolCall",
        "id": "t1",
        "name": "bash",
        "arguments": {
            "command": f"curl -H 'Authorization: Bearer {s['Bearer credential']}' "
            f"https://deploy:{s['password in a URL']}@example.com/x"
        },
    }
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{s['private key']}\n-----END RSA PRIVATE KEY-----"
    entries = [
        header,
        message("u1", None, "user", f"use {s['API key']} and {s['OpenAI project key']}"),
        message(
            "a1",
            "u1",
            "assistant",
            [{"type": "text", "text": "running it"}, call],
            provider="anthropic",
            model="m",
            stopReason="toolUse",
        ),
        message(
            "r1",
            "a1",
            "toolResult",
            [{"type": "text", "text": f"AWS_ACCESS_KEY_ID={s['AWS access key']}\n{pem}"}],
            toolCallId="t1",
            toolName="bash",
            isError=False,
        ),
        {
            "type": "message",
            "id": "b1",
            "parentId": "r1",
            "timestamp": "2026-01-01T10:00:01.000Z",
            "message": {
                "role": "bashExecution",
                "command": "env",
                "output": f"aws_secret_access_key = {s['AWS secret key']}\nGH={s['GitHub token']}",
                "exitCode": 0,
                "timestamp": 1,
            },
        },
    ]
    path = tmp_path / "secret.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def run(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def leaked(text: str) -> list[str]:
    return [kind for kind, secret in SECRETS.items() if secret in text]


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_redact_leaves_no_secret_in_the_page(capsys, secret_session, tmp_path, fmt):
    out = tmp_path / f"page.{fmt}"
    status, _, err = run(capsys, "export", secret_session, "--redact", "-o", out)
    page = out.read_text()
    assert status == 0
    assert leaked(page) == []
    assert "replaced likely secrets on 4 lines (--redact)" in err
    for kind in ("API key", "AWS access key", "GitHub token", "private key"):
        assert f"[redacted: {kind}]" in page


def test_without_redact_the_page_keeps_them_and_stderr_names_lines_and_entries(
    capsys, secret_session, tmp_path
):
    out = tmp_path / "page.html"
    status, _, err = run(capsys, "export", secret_session, "-o", out)
    assert status == 0
    assert leaked(out.read_text())  # nothing is changed unless asked
    warning = [line for line in err.splitlines() if "warning" in line]
    assert len(warning) == 1
    assert "likely secrets on 4 lines: line 2 (entry u1: API key)" in warning[0]
    assert "line 3 (entry a1: " in warning[0] and "line 5 (entry b1: " in warning[0]


def test_a_file_without_secrets_gets_no_warning(capsys, tmp_path):
    status, _, err = run(capsys, "export", "tour", "-o", tmp_path / "t.html")
    assert status == 0 and "secret" not in err


def test_redact_never_changes_the_file_it_reads(capsys, secret_session, tmp_path):
    before = secret_session.read_bytes()
    run(capsys, "export", secret_session, "--redact", "-o", tmp_path / "p.html")
    assert secret_session.read_bytes() == before


def test_the_redacted_page_has_the_same_entries_and_fates(capsys, secret_session, tmp_path):
    plain_page, redacted_page = tmp_path / "a.md", tmp_path / "b.md"
    run(capsys, "export", secret_session, "-o", plain_page)
    run(capsys, "export", secret_session, "--redact", "-o", redacted_page)

    def fates(page):
        return re.findall(r"entries reached the model\*\*, as \d+ messages \([^)]*\)", page)

    assert fates(plain_page.read_text()) == fates(redacted_page.read_text()) != []


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_the_page_names_the_file_not_where_it_is(capsys, secret_session, tmp_path, fmt):
    out = tmp_path / f"p.{fmt}"
    shown = (lambda text: text) if fmt == "html" else md_cell  # Markdown escapes the "_"
    run(capsys, "export", secret_session, "--redact", "-o", out)
    page = out.read_text()
    assert shown(str(tmp_path)) not in page and "secret.jsonl" in page
    run(capsys, "export", secret_session, "--full-path", "--force", "-o", out)
    assert shown(str(secret_session)) in out.read_text()


def test_library_pages_name_the_file_only_unless_asked(tmp_path):
    path = tmp_path / "deep" / "x.jsonl"
    path.parent.mkdir()
    path.write_bytes(pisession.sample_path("tour").read_bytes())
    session = pisession.load(path)
    assert str(path.parent) not in export_html(session)
    assert str(path.parent) in export_html(session, full_path=True)


def test_each_shape_is_found_alone_and_named():
    for kind, secret in SECRETS.items():
        text = {
            "Bearer credential": f"Authorization: Bearer {secret}",
            "password in a URL": f"https://me:{secret}@host",
            "AWS secret key": f"AWS_SECRET_ACCESS_KEY={secret}",
            "private key": f"-----BEGIN PRIVATE KEY-----\n{secret}\n-----END PRIVATE KEY-----",
        }.get(kind, f"value {secret} end")
        new, kinds = redact.redact_text(text)
        assert secret not in new, kind
        assert kinds, kind


def test_ordinary_text_is_left_alone():
    text = "Sketched a risk-free plan; ask the AKIA team at https://example.com/a:b@c later"
    assert redact.redact_text("Bearer of bad news")[1] == []
    assert redact.redact_text(text)[1] == []


def test_a_secret_on_a_line_that_is_not_json_is_redacted_as_text():
    data = b'{"type":"session","version":3,"id":"s"}\nnot json sk-' + b"x" * 30 + b"\n"
    out, found = redact.redacted(data)
    assert b"sk-xxx" not in out and found[0].line == 2 and found[0].entry_id is None


def test_the_fast_search_finds_what_each_pattern_finds_on_its_own():
    """``_secret_lines`` (hints first) against every pattern run on every line."""
    lines = [f"x {secret} y" for secret in SECRETS.values()] + ["plain", "Bearer ok", "ghp_short"]
    lines += ["AWS_SECRET_ACCESS_KEY=" + "A" * 40, "text SK-ANT-" + "Q" * 30]
    data = "\n".join(lines).encode()
    expected = [
        n for n, line in enumerate(lines) if any(p.search(line) for _, p in redact.patterns())
    ]
    assert redact._secret_lines(data) == expected
    assert len(expected) >= len(SECRETS) - 2  # the block and the URL need their context


def test_pisessions_own_shapes_find_the_common_ones_without_detect_secrets():
    own = [re.compile(pattern) for _, pattern, _ in redact.SHAPES]
    samples = [
        f"value {SECRETS['API key']}",
        f"value {SECRETS['OpenAI project key']}",
        f"id {SECRETS['AWS access key']}",
        f"aws_secret_access_key={SECRETS['AWS secret key']}",
        f"GH {SECRETS['GitHub token']}",
        f"Authorization: Bearer {SECRETS['Bearer credential']}",
        f"https://me:{SECRETS['password in a URL']}@host",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----",
    ]
    for text in samples:
        assert any(p.search(text) for p in own), text


def test_page_secrets_names_every_line_a_secret_shown_is_on():
    """``page_secrets`` names each line of the file a secret the page shows is found on
    (the first line, a line that starts with it, repeated lines), as counting the
    newlines before each find does."""
    from pisession.views.redact import page_secrets

    token = SECRETS["GitHub token"]
    lines = [token, '{"id":"a"}', "", f'{{"id":"b","t":"{token}"}}', "x", token + " end"]
    data = "\n".join(lines).encode()
    found = page_secrets(f"<p>{token}</p>", lambda: data)
    expected = [n + 1 for n, line in enumerate(lines) if token in line]
    assert [s.line for s in found] == expected == [1, 4, 6]
    assert [s.entry_id for s in found] == [None, "b", None]


def test_a_plans_hint_test_finds_any_of_its_hints():
    """``_holder``'s one test (a regular expression of several hints) says what a search
    for each hint says, on texts made of pieces of every plan's hints."""
    import random

    rng = random.Random(7)
    plans = [holds for _, _, holds, _, _ in redact._plans() if holds is not None]
    hints = [h for _, _, hs in redact._searches() for h in hs]
    pieces = [*hints, *(h[: len(h) // 2] for h in hints), *(h[1:] for h in hints), "x", " "]
    for _ in range(400):
        text = "".join(rng.choices(pieces, k=rng.randrange(0, 4)))
        for _, _, hs in redact._searches():
            for form in (hs, tuple(h.lower() for h in hs)):
                holds = redact._holder(form)
                if holds is not None:
                    assert bool(holds(text)) == any(h in text for h in form), (form, text)
    assert len(plans) == sum(1 for _, _, hs in redact._searches() if hs)
