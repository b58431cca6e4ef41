import pytest


@pytest.fixture(autouse=True)
def english_after_each_test():
    """A test that switches to Chinese must not leave the translator installed for the next."""
    yield
    from PySide6.QtCore import QCoreApplication
    if QCoreApplication.instance() is not None:
        from app import i18n
        i18n.install("en")
