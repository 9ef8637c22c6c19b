// Original file: proto/market/v1/market.proto

export interface PushPricesResponse {}

export interface PushPricesResponse__Output {}
