// Original file: proto/market/v1/market.proto

export interface NewsEvent {
  id?: string;
  title?: string;
  scheduled_at?: string;
  symbols?: string[];
  asset_classes?: string[];
}

export interface NewsEvent__Output {
  id: string;
  title: string;
  scheduled_at: string;
  symbols: string[];
  asset_classes: string[];
}
