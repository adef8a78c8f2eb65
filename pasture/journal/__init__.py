"""The journal's readers: the SQLite database the spool is ingested into (`db`), the click-free
listing (`view`), retention (`retention`) and export (`export`). Never the hook path: the hook only
appends to the spool (pasture/runtime/journal.py)."""
