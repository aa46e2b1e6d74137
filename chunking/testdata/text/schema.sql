-- Schema for the widget store.
/* Block comment; with a semicolon /* nested; */ still comment; */
CREATE TABLE widgets (
    id      serial PRIMARY KEY,
    name    text NOT NULL DEFAULT 'un;named',  -- a ';' inside a string
    note    text DEFAULT 'it''s; fine',
    escaped text DEFAULT E'back\'slash;',
    "odd;name" int
); -- trailing comment stays with the table

INSERT INTO widgets (name) VALUES ('a'), ('b;c');

CREATE OR REPLACE FUNCTION bump(i integer) RETURNS integer AS $body$
BEGIN
    UPDATE widgets SET id = id + 1 WHERE id = $1;
    RETURN i + 1;
END;
$body$ LANGUAGE plpgsql;

CREATE FUNCTION one() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;

DELIMITER //
CREATE PROCEDURE count_widgets()
BEGIN
    SELECT COUNT(*) FROM widgets;
    SELECT 'done';
END //
DELIMITER ;

INSERT INTO widgets (name, note) VALUES
    ('alpha', 'first widget of the fleet'),
    ('beta', 'second widget of the fleet'),
    ('gamma', 'third widget of the fleet'),
    ('delta', 'fourth widget of the fleet'),
    ('epsilon', 'fifth widget of the fleet'),
    ('zeta', 'sixth widget of the fleet'),
    ('eta', 'seventh widget of the fleet'),
    ('theta', 'eighth widget of the fleet'),
    ('iota', 'ninth widget of the fleet'),
    ('kappa', 'tenth widget of the fleet'),
    ('lambda', 'eleventh widget of the fleet'),
    ('mu', 'twelfth widget of the fleet');

SELECT name FROM widgets WHERE name LIKE '%a%'
-- the last statement has no semicolon
