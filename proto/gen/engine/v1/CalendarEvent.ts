// Original file: proto/engine/v1/engine.proto

export interface CalendarEvent {
  id?: string;
  title?: string;
  scheduled_at?: string;
  symbols?: string[];
  asset_classes?: string[];
}

export interface CalendarEvent__Output {
  id: string;
  title: string;
  scheduled_at: string;
  symbols: string[];
  asset_classes: string[];
}
