"""An SMT-LIB2 solver process for yosys-smtbmc, backed by Bitwuzla's Python API.

yosys-smtbmc drives its solver as a program on a pipe (`bitwuzla --smt2 -i` for `-s bitwuzla`):
it writes one command at a time and reads the answer of each `check-sat` and `get-value`.
Bitwuzla's PyPI wheel has the solver and its SMT-LIB2 parser but no command-line program, and
Debian 12 packages neither Bitwuzla nor a Boolector recent enough; hence this loop. It reads
whole commands from stdin, answers `check-sat`, `get-value`, `echo` and `exit` itself (so each
answer is flushed at once: the parser's own printing is buffered until exit), and hands every
other command to the parser, which declares, defines, asserts, pushes and pops.

Run by scripts/setup-formal.sh's launcher (.tools/formal/bin/bitwuzla) with the virtual
environment's Python. The command-line options yosys-smtbmc passes are ignored: models are
always produced and the solver is always incremental.
"""

import re
import sys

import bitwuzla

COMMAND = re.compile(r"\(\s*([^\s()|;]+)")


def read_command(stream):
    """The next complete command (balanced parentheses outside |symbols| and "strings"),
    without its ; comments, or None at end of input."""
    text = []
    depth = 0
    started = False
    in_symbol = False
    in_string = False
    while True:
        line = stream.readline()
        if not line:
            return None
        for c in line:
            if in_symbol:
                in_symbol = c != "|"
            elif in_string:
                in_string = c != '"'
            elif c == ";":
                break
            elif c == "|":
                in_symbol = True
            elif c == '"':
                in_string = True
            elif c == "(":
                depth += 1
                started = True
            elif c == ")":
                depth -= 1
            text.append(c)
        text.append("\n")
        if started and depth == 0 and not in_symbol and not in_string:
            return "".join(text).strip()


def split_terms(text):
    """The top-level terms of `text` (`x (bvadd x #x01) |a b|` -> three terms)."""
    terms = []
    current = []
    depth = 0
    in_symbol = False
    for c in text:
        if in_symbol:
            current.append(c)
            in_symbol = c != "|"
            continue
        if c == "|":
            in_symbol = True
            current.append(c)
        elif c == "(":
            depth += 1
            current.append(c)
        elif c == ")":
            depth -= 1
            current.append(c)
        elif c.isspace() and depth == 0:
            if current:
                terms.append("".join(current))
            current = []
        else:
            current.append(c)
    if current:
        terms.append("".join(current))
    return terms


def answer(parser, command):
    """Runs one command; returns its answer line, or None when it has none."""
    match = COMMAND.match(command)
    head = match.group(1) if match else ""
    rest = command[match.end() : -1].strip() if match else ""
    if head == "check-sat":
        result = parser.bitwuzla().check_sat()
        return {
            bitwuzla.Result.SAT: "sat",
            bitwuzla.Result.UNSAT: "unsat",
        }.get(result, "unknown")
    if head == "get-value":
        if not (rest.startswith("(") and rest.endswith(")")):
            raise ValueError("get-value takes a list of terms")
        pairs = []
        for term in split_terms(rest[1:-1]):
            value = parser.bitwuzla().get_value(parser.parse_term(term))
            pairs.append(f"({term} {value.str()})")
        return "(" + " ".join(pairs) + ")"
    if head == "echo":
        return rest
    parser.parse(command, True, False)
    return None


def main():
    options = bitwuzla.Options()
    options.set(bitwuzla.Option.PRODUCE_MODELS, True)
    parser = bitwuzla.Parser(bitwuzla.TermManager(), options)
    while True:
        command = read_command(sys.stdin)
        if command is None or command.startswith("(exit"):
            return 0
        try:
            line = answer(parser, command)
        except Exception as error:  # reported to yosys-smtbmc as SMT-LIB2 says
            message = str(error).replace("\\", "\\\\").replace('"', '\\"')
            sys.stdout.write(f'(error "{message}")\n')
            sys.stdout.flush()
            return 1
        if line is not None:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
