"""Who pushes and under which name a repo is shared: remotes normalised so one repo on two
machines is one project; connection strings kept and shown without their password."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lazy.team.conninfo import ConninfoError, shown, where, without_password
from lazy.team.identity import IdentityError, member, normalise_remote, remote_of


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:Acme/App.git",
        "git@GitHub.com:Acme/App",
        "https://github.com/Acme/App.git",
        "https://bob:s3cret@GitHub.com/Acme/App/",
        "ssh://git@github.com:22/Acme/App.git",
        "git://github.com/Acme/App",
    ],
)
def test_one_repo_by_any_of_its_urls_is_one_project(url: str) -> None:
    assert normalise_remote(url) == "github.com/Acme/App"


def test_local_remotes_stay_paths() -> None:
    assert normalise_remote("/srv/git/app.git") == "/srv/git/app"
    assert normalise_remote("file:///srv/git/app.git") == "/srv/git/app"


def test_a_repo_without_a_remote_has_none(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert remote_of(str(repo)) is None
    subprocess.run(
        ["git", "-C", str(repo), "remote", "add", "upstream", "git@gitlab.com:x/y.git"], check=True
    )
    assert remote_of(str(repo)) == "gitlab.com/x/y"  # origin, else the first remote
    assert remote_of(str(tmp_path / "gone")) is None


def test_the_member_comes_from_config_else_git(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    with pytest.raises(IdentityError, match=r"set team\.name and team\.email"):
        member()
    (tmp_path / "gitconfig").write_text("[user]\n\tname = Git Name\n\temail = Git@Example.com\n")
    assert (member().name, member().email) == ("Git Name", "git@example.com")
    monkeypatch.setenv("LAZY_TEAM_NAME", "Config Name")
    assert member().name == "Config Name"


def test_a_password_is_never_kept_or_shown() -> None:
    kept, had = without_password(
        "postgresql://bob:hunter2@db.acme.test:5433/team?sslmode=verify-full"
    )
    assert had and "hunter2" not in kept and "sslmode=verify-full" in kept and "user=bob" in kept
    assert "hunter2" not in shown("host=db user=bob password=hunter2 dbname=team")
    assert where("host=db port=5433 user=bob dbname=team") == "bob@db:5433/team"
    with pytest.raises(ConninfoError) as e:
        without_password("host=db password = hunter2 oops")
    assert "hunter2" not in str(e.value)
