"""Read the rows of a text summary back, for tests that compare them with the DataFrames."""


def table_rows(text, title, n_columns):
    """``{label: values}`` of the table titled ``title`` in a text summary.

    ``label`` is ``"data set / row"`` for rows under a data-set heading, the
    row's stub otherwise; ``values`` the last ``n_columns`` tokens of the line.
    """
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == title)
    assert set(lines[start + 1]) == {"="}, title
    assert set(lines[start + 3]) == {"-"}, title
    body = []
    for line in lines[start + 4 :]:
        if set(line) == {"-"}:
            break
        body.append(line)
    rows, group = {}, None
    for k, line in enumerate(body):
        nested = line.startswith("  ")
        if not nested and k + 1 < len(body) and body[k + 1].startswith("  "):
            group = line.strip()
            continue
        tokens = line.split()
        label = " ".join(tokens[:-n_columns])
        if nested:
            label = f"{group} / {label}"
        assert label not in rows, label
        rows[label] = tokens[-n_columns:]
    return rows
