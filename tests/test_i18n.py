"""The languages: which one a reader gets, and catalogues that say every message ygoreplay says."""
from __future__ import annotations

import pytest

from ygoreplay import i18n


@pytest.mark.parametrize("tag, language", [
    ("zh_CN.UTF-8", "zh-Hans"), ("zh-SG", "zh-Hans"), ("zh", "zh-Hans"), ("zh-Hans-CN", "zh-Hans"),
    ("zh_TW.UTF-8", "zh-Hant"), ("zh-HK", "zh-Hant"), ("zh-Hant", "zh-Hant"), ("ja_JP.UTF-8", "ja"),
    ("ko-KR", "ko"), ("en_GB", "en"), ("C", "en"), ("POSIX", "en"), ("fr_FR", None), ("", None)])
def test_a_language_tag_or_posix_locale_picks_its_catalogue(tag, language):
    assert i18n.resolve(tag) == language


def test_accept_language_picks_the_best_catalogue_by_quality():
    assert i18n.negotiate("fr-FR, fr;q=0.9, ja;q=0.7, zh-TW;q=0.8") == "zh-Hant"
    assert i18n.negotiate("de, fr") == "en"
    assert i18n.negotiate("ja;q=0, ko;q=0.1") == "ko"
    assert i18n.negotiate(None) == "en"
    assert i18n.negotiate("x" * 100000) == "en"


def test_the_environment_chooses_ygoreplay_lang_first_then_the_posix_locale():
    assert i18n.from_environment({"YGOREPLAY_LANG": "ja", "LANG": "zh_CN.UTF-8"}) == "ja"
    assert i18n.from_environment({"LANGUAGE": "zh_TW:en", "LANG": "ja_JP.UTF-8"}) == "zh-Hant"
    assert i18n.from_environment({"LC_ALL": "ko_KR.UTF-8"}) == "ko"
    assert i18n.from_environment({"LANG": "fr_FR.UTF-8"}) == "en"
    assert i18n.from_environment({}) == "en"


def test_a_language_named_that_has_no_catalogue_is_refused_saying_which_exist():
    with pytest.raises(i18n.LanguageError, match="zh-Hans"):
        i18n.named("klingon")


def test_the_language_in_use_is_scoped_and_english_is_the_fallback():
    with i18n.using("ja"):
        assert i18n.current() == "ja"
        assert i18n.t("a message no catalogue has {n}", n=3) == "a message no catalogue has 3"
    assert i18n.current() == "en"


@pytest.mark.parametrize("domain", i18n.DOMAINS)
@pytest.mark.parametrize("language", [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT])
def test_every_message_has_a_current_translation_with_the_same_placeholders(domain, language):
    """A message said in the code and missing from a catalogue, translated empty, left stale or
    filling other placeholders than the English fails here; ``python -m ygoreplay.i18n update``
    brings the catalogues in line, then the translations are written."""
    said = i18n.extract(domain)
    translated = i18n.catalogue(language, domain)
    missing = sorted(set(said) - set(translated))
    assert not missing, f"{len(missing)} {domain} messages untranslated in {language}: {missing[:10]}"
    path = i18n.po_path(language, domain)
    from babel.messages.pofile import read_po
    with path.open("rb") as handle:
        stale = sorted(m.id for m in read_po(handle) if m.id and m.id not in said)
    assert not stale, f"stale {domain} entries in {path.name} ({language}): {stale[:10]}"
    wrong = [m for m in said if i18n.placeholders(m) != i18n.placeholders(translated[m])]
    assert not wrong, f"placeholders differ in {language}: {wrong[:10]}"
