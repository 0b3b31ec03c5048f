"""``--backend ray`` on a local Ray: the same files as in this process."""

from __future__ import annotations

import sys

import pytest

from dixit_ai.tournament import run_tournament
from dixit_ai.tournament.runner import ray_module
from tests.tournament.helpers import random_config
from tests.tournament.test_run import QUICK, files_of


def test_without_ray_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"pip install 'dixit-ai\[dist\]'"):
        ray_module()


@pytest.fixture(scope="module")
def local_ray():
    try:
        import ray
    except ImportError:
        pytest.skip("ray is not installed (pip install 'dixit-ai[dist]')")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_ray_gives_the_same_files_as_one_process(local_ray, tmp_path):
    config = random_config()
    here = run_tournament(config, out=tmp_path / "here", **QUICK)
    on_ray = run_tournament(config, out=tmp_path / "ray", backend="ray", workers=2, **QUICK)
    assert files_of(on_ray.folder) == files_of(here.folder)
    assert local_ray.is_initialized()  # a Ray started by the caller is left running
    # A resumed run may switch backend: the records are the same.
    half = run_tournament(config, out=tmp_path / "half", stop_after=5, **QUICK)
    run_tournament(config, resume=half.folder, backend="ray", workers=2, **QUICK)
    assert files_of(half.folder) == files_of(here.folder)


def test_without_ray_no_run_folder_is_made(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"dixit-ai\[dist\]"):
        run_tournament(random_config(), out=tmp_path, backend="ray", workers=2, **QUICK)
    assert not list(tmp_path.iterdir())
