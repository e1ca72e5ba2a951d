import { z } from "zod";
import { time } from "../import-times.js";
import { idSchema } from "../scope.js";
import { MAX_EDGE_SOURCES, MAX_MENTIONS } from "./graph-records.js";

/** The entity graph's part of an export document (see graph-transfer.ts for how it is restored). */

/** A message a graph node or edge came from. */
const graphSourceSchema = z.object({ sessionId: idSchema("sessionId"), messageId: idSchema("messageId") }).strict();

/** Most edges one imported node may carry. */
export const MAX_IMPORTED_NODE_RELATIONS = 5_000;

/**
 * One node of the entity graph, as an export carries it (see `EntityRecord`): its key as the graph
 * makes them (lower case, trimmed; an alias's starts with "~"), each edge with its validity and
 * sources.
 */
export const entityNodeSchema = z
  .object({
    key: z
      .string()
      .min(1)
      .max(400)
      .refine((key) => key === key.trim().toLowerCase() && !/\s{2}/.test(key), { message: "must be a node key as the graph makes them: lower case, trimmed, single spaces" }),
    name: z.string().min(1).max(400),
    kind: z.string().min(1).max(40),
    aliases: z.array(z.string().min(1).max(100)).max(100),
    mentions: z.array(graphSourceSchema).max(MAX_MENTIONS),
    relations: z
      .array(
        z
          .object({
            type: z.string().min(1).max(100),
            to: z.string().min(1).max(400).meta({ description: "The other node's key (a node of the same document)." }),
            validFrom: time("Since when it holds."),
            validTo: time("When a newer value of a one-valued relation ended it; null while it holds.").nullable(),
            sources: z.array(graphSourceSchema).min(1).max(MAX_EDGE_SOURCES),
          })
          .strict()
          .refine((r) => r.validTo === null || r.validTo >= r.validFrom, { message: "valid_to must not be before valid_from", path: ["validTo"] }),
      )
      .max(MAX_IMPORTED_NODE_RELATIONS),
    updatedAt: time("When the node last changed."),
  })
  .strict();

