// Original file: proto/engine/v1/engine.proto

export interface ClosePositionRequest {
  user_id?: string;
  account_id?: string;
  symbol?: string;
  quantity?: string;
  kind?: string;
  price?: string;
  time_in_force?: string;
  client_id?: string;
  venue?: string;
  position_id?: string;
  request_id?: string;
  _quantity?: "quantity";
  _kind?: "kind";
  _price?: "price";
  _time_in_force?: "time_in_force";
  _client_id?: "client_id";
  _venue?: "venue";
  _position_id?: "position_id";
  _request_id?: "request_id";
}

export interface ClosePositionRequest__Output {
  user_id: string;
  account_id: string;
  symbol: string;
  quantity?: string;
  kind?: string;
  price?: string;
  time_in_force?: string;
  client_id?: string;
  venue?: string;
  position_id?: string;
  request_id?: string;
  _quantity?: "quantity";
  _kind?: "kind";
  _price?: "price";
  _time_in_force?: "time_in_force";
  _client_id?: "client_id";
  _venue?: "venue";
  _position_id?: "position_id";
  _request_id?: "request_id";
}
