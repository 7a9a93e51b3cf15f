"""The seed secret: where it comes from, what it changes, and that one secret gives one report."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.bundles.common import SEED_SECRET_NAME, write_grading_files
from grader.commands.cli import main
from grader.families.bpe import do_nothing
from support.students import write_do_nothing
from grader.grading import secrets
from grader.grading.engine import GradingSetupError, grade_submission
from grader.grading.search import generated_examples
from grader.spec import load_exercise

from exercise_variants import quick
from support.reports import without_durations

SUBMISSIONS = Path(__file__).parents[1] / "submissions"


@pytest.fixture
def no_secret_settings(monkeypatch, tmp_path):
    monkeypatch.delenv(secrets.SECRET_ENV, raising=False)
    monkeypatch.delenv(secrets.SECRET_FILE_ENV, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


def test_a_local_grading_creates_a_private_per_user_secret_once(no_secret_settings):
    first = secrets.resolve_secret()
    path = no_secret_settings / "config" / "bpe-autograder" / "secret"
    assert path.is_file() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first) >= 32 and secrets.resolve_secret() == first


def test_the_option_then_the_environment_then_the_file_win(no_secret_settings, monkeypatch):
    secret_file = no_secret_settings / "bundle-secret"
    secret_file.write_text("from the bundle\n", encoding="utf-8")
    monkeypatch.setenv(secrets.SECRET_FILE_ENV, str(secret_file))
    assert secrets.resolve_secret() == "from the bundle"
    monkeypatch.setenv(secrets.SECRET_ENV, "from the environment")
    assert secrets.resolve_secret() == "from the environment"
    assert secrets.resolve_secret("pinned") == "pinned"
    assert not (no_secret_settings / "config").exists()


def test_a_missing_secret_file_is_a_clear_setup_error(no_secret_settings, monkeypatch):
    monkeypatch.setenv(secrets.SECRET_FILE_ENV, str(no_secret_settings / "nowhere"))
    with pytest.raises(secrets.SeedSecretError, match="GRADE_SEED_SECRET_FILE"):
        secrets.resolve_secret()
    with pytest.raises(GradingSetupError, match="cannot read the seed secret file"):
        grade_submission(SUBMISSIONS / "correct_counter.py")


def test_seeds_depend_on_the_secret_and_the_use():
    assert secrets.inputs_seed("a", "x") == secrets.inputs_seed("a", "x")
    assert secrets.inputs_seed("a", "x") != secrets.inputs_seed("b", "x")
    assert secrets.inputs_seed("a", "x") != secrets.corpus_seed("a", "x", 97)
    exercise = load_exercise("bpe-train-encode")
    one = generated_examples(exercise, "train", 20, secrets.inputs_seed("a", exercise.id))
    again = generated_examples(exercise, "train", 20, secrets.inputs_seed("a", exercise.id))
    other = generated_examples(exercise, "train", 20, secrets.inputs_seed("b", exercise.id))
    public = generated_examples(exercise, "train", 20)
    assert one == again and one != other and one != public


def test_one_secret_gives_one_report_and_the_cli_takes_it(tmp_path):
    exercise = quick(load_exercise("bpe-train-encode"))
    wrong = SUBMISSIONS / "wrong_tie_first_seen.py"
    first = grade_submission(wrong, exercise, seed_secret="s1").to_json()
    second = grade_submission(wrong, exercise, seed_secret="s1").to_json()
    assert without_durations(first) == without_durations(second)
    runner = CliRunner()
    student = write_do_nothing(load_exercise("bpe-train-encode"), tmp_path, "identity")
    args = ["submit", str(student), "--format", "json"]
    one = runner.invoke(main, args + ["--seed-secret", "s1"])
    two = runner.invoke(main, args + ["--seed-secret", "s1"])
    assert one.exit_code == 0
    assert without_durations(json.loads(one.stdout)) == without_durations(json.loads(two.stdout))


def test_a_bundle_carries_a_fresh_private_secret(tmp_path, monkeypatch):
    # With no secret given (no option, no GRADE_SEED_SECRET, no secret file) each bundle draws
    # its own.
    monkeypatch.delenv("GRADE_SEED_SECRET", raising=False)
    monkeypatch.delenv("GRADE_SEED_SECRET_FILE", raising=False)
    exercise = load_exercise("bpe-train-encode")
    write_grading_files(tmp_path / "one", exercise, sandbox="strict")
    write_grading_files(tmp_path / "two", exercise, sandbox="strict")
    one, two = tmp_path / "one" / SEED_SECRET_NAME, tmp_path / "two" / SEED_SECRET_NAME
    assert stat.S_IMODE(one.stat().st_mode) == 0o600
    assert one.read_text() != two.read_text()
    config = json.loads((tmp_path / "one" / "bundle.json").read_text())
    assert config["seed_secret_file"] == SEED_SECRET_NAME
