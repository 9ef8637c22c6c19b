// Original file: proto/engine/v1/engine.proto

export interface FundingPayment {
  payment_id?: string;
  position_id?: string;
  symbol?: string;
  asset_class?: string;
  rate?: number | string;
  amount?: number | string;
  paid_at?: string;
}

export interface FundingPayment__Output {
  payment_id: string;
  position_id: string;
  symbol: string;
  asset_class: string;
  rate: number;
  amount: number;
  paid_at: string;
}
