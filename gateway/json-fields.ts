// proto → JSON records: a record's named fields, in the order named, each optional one (`name?`) as null when
// absent. Fields that are not named (the loader's virtual oneof fields among them) are left out.

type Field<T> = (keyof T & string) | `${keyof T & string}?`;

/**
 * A converter copying `fields` of a record in their order (written in groups of related fields, read as one
 * list); `rename` maps each proto name to its JSON name.
 */
export function fieldsOf<T extends object>(
  fields: readonly (readonly Field<T>[])[],
  rename: (name: string) => string = (name) => name,
): (record: T) => Record<string, unknown> {
  const plan = fields.flat().map((field) => {
    const nullable = field.endsWith("?");
    const key = (nullable ? field.slice(0, -1) : field) as keyof T & string;
    return { key, name: rename(key), nullable };
  });
  return (record) => {
    const json: Record<string, unknown> = {};
    for (const { key, name, nullable } of plan) json[name] = nullable ? (record[key] ?? null) : record[key];
    return json;
  };
}
