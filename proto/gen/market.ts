import type * as grpc from "@grpc/grpc-js";
import type { MessageTypeDefinition } from "@grpc/proto-loader";

import type {
  MarketDataClient as _market_v1_MarketDataClient,
  MarketDataDefinition as _market_v1_MarketDataDefinition,
} from "./market/v1/MarketData.js";
import type {
  NewsEvent as _market_v1_NewsEvent,
  NewsEvent__Output as _market_v1_NewsEvent__Output,
} from "./market/v1/NewsEvent.js";
import type {
  PriceUpdate as _market_v1_PriceUpdate,
  PriceUpdate__Output as _market_v1_PriceUpdate__Output,
} from "./market/v1/PriceUpdate.js";
import type {
  PushPricesRequest as _market_v1_PushPricesRequest,
  PushPricesRequest__Output as _market_v1_PushPricesRequest__Output,
} from "./market/v1/PushPricesRequest.js";
import type {
  PushPricesResponse as _market_v1_PushPricesResponse,
  PushPricesResponse__Output as _market_v1_PushPricesResponse__Output,
} from "./market/v1/PushPricesResponse.js";
import type {
  SetCalendarRequest as _market_v1_SetCalendarRequest,
  SetCalendarRequest__Output as _market_v1_SetCalendarRequest__Output,
} from "./market/v1/SetCalendarRequest.js";
import type {
  SetCalendarResponse as _market_v1_SetCalendarResponse,
  SetCalendarResponse__Output as _market_v1_SetCalendarResponse__Output,
} from "./market/v1/SetCalendarResponse.js";

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new (...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  market: {
    v1: {
      MarketData: SubtypeConstructor<typeof grpc.Client, _market_v1_MarketDataClient> & {
        service: _market_v1_MarketDataDefinition;
      };
      NewsEvent: MessageTypeDefinition<_market_v1_NewsEvent, _market_v1_NewsEvent__Output>;
      PriceUpdate: MessageTypeDefinition<_market_v1_PriceUpdate, _market_v1_PriceUpdate__Output>;
      PushPricesRequest: MessageTypeDefinition<_market_v1_PushPricesRequest, _market_v1_PushPricesRequest__Output>;
      PushPricesResponse: MessageTypeDefinition<_market_v1_PushPricesResponse, _market_v1_PushPricesResponse__Output>;
      SetCalendarRequest: MessageTypeDefinition<_market_v1_SetCalendarRequest, _market_v1_SetCalendarRequest__Output>;
      SetCalendarResponse: MessageTypeDefinition<
        _market_v1_SetCalendarResponse,
        _market_v1_SetCalendarResponse__Output
      >;
    };
  };
}
