"""A zero-shot member's fingerprint follows the temperature its vectors are computed with, and
stays the shipped one for the committed heads (the temperature they were built with)."""

from __future__ import annotations

import dataclasses

from models import family

SHIPPED_LITE1_ZEROSHOT = "family-722b0ff82a9c37d4b6c852fc1b99025f658915cd"


def test_zero_shot_fingerprint_follows_the_temperature_and_keeps_the_shipped_one(tmp_path):
    committed = family.weights_dir() / family.MEMBERS["lite1-zeroshot"].head_file
    assert family.FamilyEmbedder("lite1-zeroshot").fingerprint == SHIPPED_LITE1_ZEROSHOT
    head = family.load_head(committed, image_tower="lite1", text_tower="mpnet")
    assert head.zero_shot_temperature == 1.0
    fingerprints = {}
    for temperature in (1.0, 4.0, 0.5):
        path = tmp_path / f"t{temperature}.npz"
        family.save_head(dataclasses.replace(head, zero_shot_temperature=temperature), path,
                         member_name="lite1-mpnet", image_tower="lite1", text_tower="mpnet")
        fingerprints[temperature] = family.FamilyEmbedder("lite1-zeroshot", path).fingerprint
    assert fingerprints[1.0] == SHIPPED_LITE1_ZEROSHOT
    assert len(set(fingerprints.values())) == 3
