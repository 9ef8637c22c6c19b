// Original file: proto/engine/v1/engine.proto

export interface WatchCatalogueRequest {}

export interface WatchCatalogueRequest__Output {}
