import { z } from "zod";
import { EVENT_TYPE_NAMES } from "./event-names";

export * from "./event-names";

/** The webhook envelope's `type`, validated. */
export const EventTypeSchema = z.enum(EVENT_TYPE_NAMES);
