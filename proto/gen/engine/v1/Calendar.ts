// Original file: proto/engine/v1/engine.proto

import type {
  CalendarEvent as _engine_v1_CalendarEvent,
  CalendarEvent__Output as _engine_v1_CalendarEvent__Output,
} from "../../engine/v1/CalendarEvent.js";

export interface Calendar {
  events?: _engine_v1_CalendarEvent[];
}

export interface Calendar__Output {
  events: _engine_v1_CalendarEvent__Output[];
}
