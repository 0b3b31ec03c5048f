"""An unknown embedder name is answered with every name a user can type.

Found walking the README as a new user: the README loads the model family's members by their bare
names (``models.load_embedder("lite2-mpnet")``), but a misspelt one (``"lite2-mpnett"``) was
told that "names start with one of 'default', 'openclip', 'hf', 'family'", which names neither
the members nor the ``family:NAME`` form.
"""

from __future__ import annotations

import pytest

from models import EmbedderError, load_embedder
from models.family import FAMILY_NAMES


@pytest.mark.parametrize("name", ["lite2-mpnett", "defualt", "clip"])
def test_an_unknown_name_lists_the_backends_and_the_family_members(name):
    with pytest.raises(EmbedderError) as caught:
        load_embedder(name)
    message = str(caught.value)
    assert f"unknown embedder {name!r}" in message
    for backend in ("'default'", "'openclip:", "'hf:", "'family:NAME'"):
        assert backend in message
    for member in FAMILY_NAMES:
        assert f"'{member}'" in message
