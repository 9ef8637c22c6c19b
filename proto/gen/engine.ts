import type * as grpc from "@grpc/grpc-js";
import type { MessageTypeDefinition } from "@grpc/proto-loader";

import type {
  EngineClient as _engine_v1_EngineClient,
  EngineDefinition as _engine_v1_EngineDefinition,
} from "./engine/v1/Engine.js";
import type {
  ListPlansRequest as _engine_v1_ListPlansRequest,
  ListPlansRequest__Output as _engine_v1_ListPlansRequest__Output,
} from "./engine/v1/ListPlansRequest.js";
import type {
  ListPlansResponse as _engine_v1_ListPlansResponse,
  ListPlansResponse__Output as _engine_v1_ListPlansResponse__Output,
} from "./engine/v1/ListPlansResponse.js";
import type {
  ListTickersRequest as _engine_v1_ListTickersRequest,
  ListTickersRequest__Output as _engine_v1_ListTickersRequest__Output,
} from "./engine/v1/ListTickersRequest.js";
import type {
  ListTickersResponse as _engine_v1_ListTickersResponse,
  ListTickersResponse__Output as _engine_v1_ListTickersResponse__Output,
} from "./engine/v1/ListTickersResponse.js";
import type {
  MaxLeverage as _engine_v1_MaxLeverage,
  MaxLeverage__Output as _engine_v1_MaxLeverage__Output,
} from "./engine/v1/MaxLeverage.js";
import type {
  NewsFreeze as _engine_v1_NewsFreeze,
  NewsFreeze__Output as _engine_v1_NewsFreeze__Output,
} from "./engine/v1/NewsFreeze.js";
import type { Plan as _engine_v1_Plan, Plan__Output as _engine_v1_Plan__Output } from "./engine/v1/Plan.js";
import type { Ticker as _engine_v1_Ticker, Ticker__Output as _engine_v1_Ticker__Output } from "./engine/v1/Ticker.js";

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new (...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  engine: {
    v1: {
      Engine: SubtypeConstructor<typeof grpc.Client, _engine_v1_EngineClient> & {
        service: _engine_v1_EngineDefinition;
      };
      ListPlansRequest: MessageTypeDefinition<_engine_v1_ListPlansRequest, _engine_v1_ListPlansRequest__Output>;
      ListPlansResponse: MessageTypeDefinition<_engine_v1_ListPlansResponse, _engine_v1_ListPlansResponse__Output>;
      ListTickersRequest: MessageTypeDefinition<_engine_v1_ListTickersRequest, _engine_v1_ListTickersRequest__Output>;
      ListTickersResponse: MessageTypeDefinition<
        _engine_v1_ListTickersResponse,
        _engine_v1_ListTickersResponse__Output
      >;
      MaxLeverage: MessageTypeDefinition<_engine_v1_MaxLeverage, _engine_v1_MaxLeverage__Output>;
      NewsFreeze: MessageTypeDefinition<_engine_v1_NewsFreeze, _engine_v1_NewsFreeze__Output>;
      Plan: MessageTypeDefinition<_engine_v1_Plan, _engine_v1_Plan__Output>;
      Ticker: MessageTypeDefinition<_engine_v1_Ticker, _engine_v1_Ticker__Output>;
    };
  };
}
