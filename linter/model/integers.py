"""How far each integer type counts, per dialect family: the largest value a column of the type
holds, from the servers' manuals (PostgreSQL "Numeric Types"; MySQL "Integer Types"; MariaDB's
pages per type, which give the same ranges). The suite checks the PostgreSQL and MariaDB figures on
the servers it starts."""

from __future__ import annotations

from schemacite.model.dialects import Dialect
from schemacite.model.record import record
from schemacite.model.schema import Column

# PostgreSQL has no unsigned integers; serial, smallserial and identity columns take these types
_POSTGRES = {
    "int2": ("smallint", 16, 32_767),
    "int4": ("integer", 32, 2_147_483_647),
    "int8": ("bigint", 64, 2**63 - 1),
}
# MySQL and MariaDB: name, bits, largest signed value, largest unsigned value
_MYSQL = {
    "tinyint": ("TINYINT", 8, 127, 255),
    "smallint": ("SMALLINT", 16, 32_767, 65_535),
    "mediumint": ("MEDIUMINT", 24, 8_388_607, 16_777_215),
    "int": ("INT", 32, 2_147_483_647, 4_294_967_295),
    "bigint": ("BIGINT", 64, 2**63 - 1, 2**64 - 1),
}
_MYSQL_ALIASES = {
    "integer": "int",
    "int1": "tinyint",
    "int2": "smallint",
    "int3": "mediumint",
    "int4": "int",
    "int8": "bigint",
}


@record(frozen=True)
class IntegerType:
    """An integer column's type as its server counts: `name` as the manual spells it, the bits it
    stores, and the largest value it holds."""

    name: str
    bits: int
    max: int


def integer_type(dialect: Dialect, column: Column) -> IntegerType | None:
    """The integer type of `column`, or None when it is no integer type."""
    base = column.base_type.lower()
    if dialect is Dialect.POSTGRES:
        found = _POSTGRES.get(base)
        return IntegerType(*found) if found else None
    row = _MYSQL.get(_MYSQL_ALIASES.get(base, base))
    if row is None:
        return None
    name, bits, signed, unsigned = row
    return IntegerType(f"{name} UNSIGNED" if column.unsigned else name, bits, unsigned if column.unsigned else signed)
