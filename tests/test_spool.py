"""Card texts in the spool: catalog.json's one-line form, the permalink filled into its slot."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from extractor.model import Card, dumps_compact
from extractor.model.serialize import compact
from extractor.model.spool import PERMALINK_SLOT, card_text, with_permalink

_KEYS = st.sampled_from(["permalink", "path", "related", "inputs", "x\x00", "é"])
_TEXT = st.text(alphabet=st.sampled_from(["a", "\x00", '"', "\\", "\n", "\ud800", "é", ":", ","]), max_size=8)
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | _TEXT, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3), max_leaves=12)


@given(st.dictionaries(st.sampled_from(["path", "related", "trigger", "domains", "message"]), _JSON), st.none() | _TEXT)
def test_a_card_text_is_its_compact_json_with_the_permalink_in_its_slot(card, link) -> None:
    """Also where the card's own values hold the slot's character, or keys named permalink."""
    text = card_text({**card, "permalink": None})
    assert text.count(PERMALINK_SLOT) == 1 and "\n" not in text
    published = compact(Card, card)
    assert with_permalink(text, link) == dumps_compact(published if link is None else {**published, "permalink": link})[:-1]
    assert json.loads(with_permalink(text, link)).get("permalink") == link
