// Original file: proto/market/v1/market.proto

export interface SetCalendarResponse {}

export interface SetCalendarResponse__Output {}
