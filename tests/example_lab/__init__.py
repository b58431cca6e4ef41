"""The "hello" lab of docs/lessons.md ("Adding a lab"): a core module, an app module and one
registry line. It lives with the tests, not in the product; tests/app/test_lab_registry.py
registers it, and checks that the documentation shows exactly this code."""
