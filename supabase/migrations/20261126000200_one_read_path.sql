-- One read path: every request, reads included, runs in its own transaction. The one-statement
-- read (`private.read_as`) needed the caller's values spliced into SQL to keep its plans and was
-- never the default; it is gone.
drop function if exists private.read_as(text, text, text, text, text[]);
