import { z } from "zod";

/** Times sort as text once normalised; `overwrite` keeps the schema a plain date-time string for JSON Schema readers. */
const toUtc = (value: string) => {
  // An overwrite runs even after the format check failed: such a value is refused anyway, untouched.
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
};

/** An ISO-8601 time with a zone ("2023-05-08T13:56:00Z"), normalised to UTC milliseconds: the time of every imported record. */
export const time = (description: string) =>
  z.iso.datetime({ offset: true }).overwrite(toUtc).meta({ description, example: "2023-05-08T13:56:00Z" });
