// Original file: proto/market/v1/market.proto

import type {
  PriceUpdate as _market_v1_PriceUpdate,
  PriceUpdate__Output as _market_v1_PriceUpdate__Output,
} from "../../market/v1/PriceUpdate.js";

export interface PushPricesRequest {
  prices?: _market_v1_PriceUpdate[];
}

export interface PushPricesRequest__Output {
  prices: _market_v1_PriceUpdate__Output[];
}
